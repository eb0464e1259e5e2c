"""The exception tree of the counting core."""


class QuizzerError(Exception):
    """Base class of every error quizzer raises on purpose."""


class SpecError(QuizzerError, ValueError):
    """A model or calculator input breaks a rule; the message names the field and the rule."""


class ConfigError(QuizzerError, ValueError):
    """A HuggingFace config.json cannot be turned into a model spec."""


class UnknownNameError(QuizzerError, KeyError):
    """A preset, dtype, recipe or hardware name that does not exist; the message lists close matches."""

    def __str__(self) -> str:
        return str(self.args[0]) if self.args else ""
