def train(accelerator, model, optimizer, loader, criterion):
    model, optimizer, loader = accelerator.prepare(model, optimizer, loader)
    for x, y in loader:
        optimizer.zero_grad()
        loss = criterion(model(x), y)
        accelerator.backward(loss)
        optimizer.step()
