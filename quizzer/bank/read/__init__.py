"""Reading a pack: TOML files to validated templates (every key, type, name and placeholder checked)."""
