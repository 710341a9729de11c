"""GL302 data-assignment: the rule (`rule`), whether `copy_` can stand in for an assignment (`data_copy`)
and which assignments give a tensor other storage on purpose (`storage_swaps`)."""
