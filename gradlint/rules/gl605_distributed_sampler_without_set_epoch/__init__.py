"""GL605 distributed-sampler-without-set-epoch: the rule (`rule`) and which loaders shuffle through a
`DistributedSampler` (`samplers`)."""
