"""The semantic model of a file: where each node sits, what each name is bound to, and how a call's
arguments meet the parameters of what it calls."""
