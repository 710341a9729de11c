"""GL508 legacy-linalg: the rule (`rule`), the argument binding and evaluation-order facts a
reordering migration needs (`reordering`), and whether a name is ever read (`name_reads`)."""
