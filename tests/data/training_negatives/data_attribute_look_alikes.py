import argparse

import pandas as pd
from torchtext import data

parser = argparse.ArgumentParser()
parser.add_argument("--data", default="/tmp/data")
args = parser.parse_args([])
root = args.data
frame = pd.DataFrame({"a": [1, 2]})
values = frame.values
shape = dataset_like.data.shape if (dataset_like := argparse.Namespace(data=frame.values)) else None
text_field = data.Field(lower=True)
config = {"data": [1, 2, 3]}
first = config["data"][0]
