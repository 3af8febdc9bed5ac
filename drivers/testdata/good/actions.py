"""Actions of the test driver."""


def backup(label="pre-upgrade"):
    """Pretends to back up the database."""
    return label
