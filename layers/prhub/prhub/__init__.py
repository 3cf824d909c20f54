"""Prhub: weekly pull-request reports. See DESIGN notes in the README."""
