def backups():
    pass


class Backup:
    def backup(self):
        pass
