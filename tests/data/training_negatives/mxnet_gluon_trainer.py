from mxnet import autograd, gluon

optimizer = gluon.Trainer(net.collect_params(), "sgd", {"learning_rate": 0.1})
for x, y in loader:
    with autograd.record():
        loss = loss_fn(net(x), y)
    loss.backward()
    optimizer.step(x.shape[0])
