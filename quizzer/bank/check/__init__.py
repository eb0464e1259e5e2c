"""The authoring check: every template generated over many seeds, and the lints that find what reads wrong."""
