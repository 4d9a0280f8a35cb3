"""Widgets and renderers of the desk. Untrusted text always goes through tui.widgets.literal."""
