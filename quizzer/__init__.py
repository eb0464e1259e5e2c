"""quizzer: terminal practice for ML-systems sizing questions."""

__version__ = "0.1.0"
