"""Invoices from orders: amounts in integer cents."""

from .tax import line_tax


def build_invoice(order):
    lines = []
    for item in order["lines"]:
        net = item["price"] * item["quantity"] - item.get("discount", 0)
        lines.append({"net": net, "tax": line_tax(net, order["rate"])})
    return {"lines": lines, "total": sum(line["net"] + line["tax"] for line in lines)}
