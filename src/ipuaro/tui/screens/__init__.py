"""Screens and modal dialogs: onboarding, indexing, choices, the in-app editor."""
