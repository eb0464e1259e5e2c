"""The template language: expressions (safe Python arithmetic, parsed once, never eval'd) and placeholders."""
