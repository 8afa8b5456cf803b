from .entry import script

script()
