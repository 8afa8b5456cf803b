from src.search.parser import parse


def test_filters():
    assert parse("lamp price:<20") == [("term", "lamp"), ("filter", "price", "<20")]
