"""The trends app stores nothing of its own: it reads studies and trials."""
