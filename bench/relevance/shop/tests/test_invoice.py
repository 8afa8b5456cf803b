from src.billing.invoice import build_invoice


def test_total():
    order = {"lines": [{"price": 333, "quantity": 3, "discount": 10}], "rate": 0.2}
    assert build_invoice(order)["total"] == 1187
