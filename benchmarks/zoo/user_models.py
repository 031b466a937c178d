"""Models of the kinds users train themselves and bring as ONNX, beside
torchvision's architectures in the zoo (export_zoo.py's "user" rows, with
their input sizes):

  crnn            a text recognizer: convs, then a 2-layer bidirectional LSTM
                  over the columns (batch first), a classifier and
                  log_softmax per column (CTC's input), on a 32x100 image;
  gru_keywords    a keyword spotter: a 2-layer GRU over 49 frames of 40
                  filterbank features, the last step classified;
  transformer_encoder  a 3-layer nn.TransformerEncoder (8 heads, batch
                  first) over 50 tokens of 128, mean-pooled and classified.

Plain PyTorch modules, random weights from the caller's seed.
"""
import torch
from torch import nn


class Crnn(nn.Module):
    def __init__(self, classes=37):
        super().__init__()
        self.conv = nn.Sequential(
            nn.Conv2d(1, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(32, 64, 3, padding=1), nn.BatchNorm2d(64), nn.ReLU(), nn.MaxPool2d((2, 1)))
        self.rnn = nn.LSTM(64 * 8, 128, num_layers=2, bidirectional=True, batch_first=True)
        self.fc = nn.Linear(256, classes)

    def forward(self, x):  # x [B, 1, 32, W]
        f = self.conv(x)  # [B, 64, 8, W / 2]
        b, c, h, w = f.shape
        f = f.permute(0, 3, 1, 2).reshape(b, w, c * h)
        y, _ = self.rnn(f)
        return self.fc(y).log_softmax(-1)


class GruKeywords(nn.Module):
    def __init__(self, features=40, classes=12):
        super().__init__()
        self.gru = nn.GRU(features, 64, num_layers=2)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):  # x [T, B, features]
        y, _ = self.gru(x)
        return self.fc(y[-1])


class TransformerClassifier(nn.Module):
    def __init__(self, d_model=128, classes=10):
        super().__init__()
        layer = nn.TransformerEncoderLayer(d_model=d_model, nhead=8, dim_feedforward=256, dropout=0.0,
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, num_layers=3)
        self.fc = nn.Linear(d_model, classes)

    def forward(self, x):  # x [B, tokens, d_model]
        return self.fc(self.encoder(x).mean(1))


