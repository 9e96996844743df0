"""The yearly report as files: a study's (or a year's) PDF, slide deck and CSV bundle, built from its results."""
