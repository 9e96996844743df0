"""Studies on cloud machines made for them: templates, the instances of a study, their cost and their end."""
