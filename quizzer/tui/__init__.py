"""The Textual TUI: the only layer that imports textual."""
