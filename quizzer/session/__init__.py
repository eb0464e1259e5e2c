"""Practice sessions as pure state machines: the clock and the RNG are arguments."""

from quizzer.session.drill import DrillSession
from quizzer.session.records import Attempt

__all__ = ["Attempt", "DrillSession"]
