"""The part of the openai package (openai-python 1.x) that tau2's embedders
use, over urllib: OpenAI(api_key, base_url).embeddings.create(input, model,
encoding_format). Without encoding_format it asks for base64 and decodes
float32s, as openai-python's Embeddings.create does
(np.frombuffer(base64.b64decode(data), dtype="float32").tolist()). The
endpoint is $OPENAI_BASE_URL: the fake the Go tests use."""
import base64
import json
import os
import urllib.request

import numpy as np


class APIError(Exception):
    pass


class APIConnectionError(APIError):
    pass


class RateLimitError(APIError):
    pass


class _Obj:
    def __init__(self, **kw):
        self.__dict__.update(kw)


class _Embeddings:
    def __init__(self, client):
        self._client = client

    def create(self, input, model, encoding_format=None, **_):
        body = {"input": input, "model": model,
                "encoding_format": encoding_format or "base64"}
        req = urllib.request.Request(
            os.environ["OPENAI_BASE_URL"] + "/embeddings",
            data=json.dumps(body).encode(),
            headers={"Content-Type": "application/json",
                     "Authorization": "Bearer " + (self._client.api_key or "")})
        with urllib.request.urlopen(req) as resp:
            reply = json.load(resp)
        data = []
        for d in reply["data"]:
            e = d["embedding"]
            if encoding_format is None and isinstance(e, str):
                e = np.frombuffer(base64.b64decode(e), dtype="float32").tolist()
            data.append(_Obj(embedding=e, index=d.get("index")))
        return _Obj(data=data)


class OpenAI:
    def __init__(self, api_key=None, base_url=None, **_):
        self.api_key = api_key
        self.base_url = base_url
        self.embeddings = _Embeddings(self)
