"""The question bank: packs of TOML templates, validated, turned into instances (see docs/architecture.md)."""
