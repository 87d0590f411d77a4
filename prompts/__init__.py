"""The jinja2 prompt cards and reading forms, shipped as package data (``miscue.prompts``)."""
