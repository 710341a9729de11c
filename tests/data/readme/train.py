import torch


def train(model, loader, criterion, optimizer):
    total = 0.0
    for epoch in range(3):
        pass

    for x, y in loader:
        out = model(x)
        loss = criterion(out, y)
        loss.backward()
        optimizer.step()
        total += loss.data[0]
    return total
