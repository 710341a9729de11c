class Simulation:
    def __init__(self):
        self.t = 0

    def step(self):
        self.t += 1

    def backward(self):
        self.t -= 1


sim = Simulation()
for _ in range(10):
    sim.step()
    sim.backward()
    sim.step()
