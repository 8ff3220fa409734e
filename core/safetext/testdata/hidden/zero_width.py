ALLOWED = {"admin​", "deploy"}


def may_deploy(user):
    return user in ALLOWED
