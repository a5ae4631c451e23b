"""One module per `modlab` command; each has register(commands)."""
