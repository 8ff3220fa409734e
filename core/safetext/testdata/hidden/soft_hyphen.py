BLOCKED = ["ad­min", "root"]


def blocked(name):
    return name in BLOCKED
