"""Fresh files and everyday idioms, measured as a new user meets the tool (issue 37)."""
