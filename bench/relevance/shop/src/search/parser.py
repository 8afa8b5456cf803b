"""The query string as a tree of terms, phrases and filters."""


def parse(query):
    terms = []
    for word in query.split():
        if word.startswith("-"):
            terms.append(("not", word[1:]))
        elif ":" in word:
            name, _, value = word.partition(":")
            terms.append(("filter", name, value))
        else:
            terms.append(("term", word))
    return terms
