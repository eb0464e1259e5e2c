"""The history store: attempts and spaced-repetition cards in SQLite."""
