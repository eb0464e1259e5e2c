"""The command-line verbs, one module each; cli.py parses arguments and dispatches here."""
