"""An instance from a template and a seed: variables drawn, answers and derivations, texts rendered."""
