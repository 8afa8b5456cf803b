def line_tax(net, rate):
    """The tax of one line, rounded half-even to the cent."""
    return round(net * rate)
