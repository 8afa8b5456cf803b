def answer(tree, rows):
    return [r for r in rows if all(t[1] in r for t in tree if t[0] == "term")]
