"""App-wide messages."""

from __future__ import annotations

from textual.message import Message

from quizzer.bank.loader import Bank


class BankLoaded(Message, bubble=False):
    """The question bank finished loading (in a worker thread).

    It does not bubble: the app forwards it to each screen, and a bubbling copy would come back.
    """

    def __init__(self, bank: Bank) -> None:
        super().__init__()
        self.bank = bank
