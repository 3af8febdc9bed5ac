def run(:
    pass
