"""Streaming over HTTPS: a loopback TLS server (127.0.0.1, a self-signed certificate made here) and
the client trusting exactly that certificate (``SSL_CERT_FILE``), as it would a provider's CA."""

from __future__ import annotations

import datetime
import ipaddress
import random
import ssl
from pathlib import Path

import pytest

from longview.kernel.agent import Message
from longview.kernel.models import GenParams, ModelCallFailed, RetryPolicy, UsageLedger, aclose_all, make_client
from longview.kernel.models.openai_compat import endpoint_pool
from longview.testing.loopback import LoopbackServer, text_message, tool_call_message

x509 = pytest.importorskip("cryptography.x509")
from cryptography.hazmat.primitives import hashes, serialization  # noqa: E402
from cryptography.hazmat.primitives.asymmetric import ec  # noqa: E402
from cryptography.x509.oid import NameOID  # noqa: E402

USER = [Message(role="user", content="plan my week")]
TOOLS = [{"type": "function", "function": {"name": "list_events", "parameters": {"type": "object"}}}]


def self_signed(folder: Path) -> tuple[Path, Path]:
    """A certificate for 127.0.0.1 (an IP subject alternative name) and its key, valid for a day."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "longview loopback test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(minutes=5))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.IPAddress(ipaddress.ip_address("127.0.0.1"))]), critical=False)
            .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
            .sign(key, hashes.SHA256()))
    cert_file, key_file = folder / "cert.pem", folder / "key.pem"
    cert_file.write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    key_file.write_bytes(key.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                                           serialization.NoEncryption()))
    return cert_file, key_file


@pytest.fixture
def tls(tmp_path, monkeypatch) -> ssl.SSLContext:
    cert, key = self_signed(tmp_path)
    ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    ctx.load_cert_chain(cert, key)
    monkeypatch.setenv("SSL_CERT_FILE", str(cert))  # the client trusts this certificate and no other
    monkeypatch.delenv("SSL_CERT_DIR", raising=False)
    for var in ("HTTPS_PROXY", "https_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.delenv(var, raising=False)
    return ctx


def quick_retry(max_attempts: int = 2) -> RetryPolicy:
    async def no_sleep(_: float) -> None:
        return None

    return RetryPolicy(max_attempts=max_attempts, sleep=no_sleep, rng=random.Random(0))


async def test_streamed_reply_over_tls_is_assembled_timed_and_bounded_by_silence(tls):
    text = "a fairly long answer that arrives in pieces"
    # Six pieces 0.15 s apart take ~0.75 s: more than the 0.5 s timeout, yet never 0.5 s of silence.
    async with LoopbackServer(agent=lambda b: tool_call_message("list_events", {"q": text}), tls=tls,
                              chunk_gap=0.15) as server:
        assert server.url.startswith("https://127.0.0.1:")
        ledger = UsageLedger()
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, ledger=ledger, retry=quick_retry(1),
                             request_timeout=0.5)
        turn = await client.complete("s", USER, TOOLS, GenParams(stream=True))
        assert not endpoint_pool(server.url).lean  # HTTPS goes through httpx, and still streams
        assert [(c.name, c.arguments) for c in turn.tool_calls] == [("list_events", {"q": text})]
        assert server.stats.streamed == 1 and turn.usage.output_tokens > 0
        agent = ledger.summary().roles["agent"]
        assert agent.streamed_calls == 1 and agent.mean_first_token_s is not None
        # Unless asked, HTTPS is not streamed (providers differ in what a stream reports).
        await client.complete("s", USER, TOOLS, GenParams())
        assert server.stats.streamed == 1 and server.stats.answered == 2
        await aclose_all()


async def test_silent_stream_over_tls_times_out_and_is_retried(tls):
    async with LoopbackServer(agent=lambda b: text_message("slow reply"), tls=tls, chunk_gap=1.0) as server:
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, retry=quick_retry(2),
                             request_timeout=0.2)
        with pytest.raises(ModelCallFailed) as e:
            await client.complete("s", USER, [], GenParams(stream=True))
        assert "no byte from the server for 0.2 s" in e.value.reason and server.stats.requests == 2
        await aclose_all()


@pytest.mark.parametrize("mode", ["ignore", "refuse"])
async def test_tls_server_that_does_not_stream_is_read_plainly(tls, mode):
    async with LoopbackServer(agent=lambda b: text_message("plain"), tls=tls, stream=mode) as server:
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, retry=quick_retry(1))
        for _ in range(2):
            assert (await client.complete("s", USER, [], GenParams(stream=True))).text == "plain"
        assert server.stats.streamed == 0 and server.stats.refused == (1 if mode == "refuse" else 0)
        await aclose_all()


async def test_untrusted_certificate_is_refused(tls, monkeypatch, tmp_path):
    (tmp_path / "other").mkdir()
    other, _ = self_signed(tmp_path / "other")
    monkeypatch.setenv("SSL_CERT_FILE", str(other))  # trust a different certificate: the handshake must fail
    async with LoopbackServer(agent=lambda b: text_message("x"), tls=tls) as server:
        client = make_client("hosted_vllm/x", api_base=server.url, cache=None, retry=quick_retry(1))
        with pytest.raises(ModelCallFailed) as e:
            await client.complete("s", USER, [], GenParams(stream=True))
        assert "connection error" in e.value.reason and server.stats.answered == 0
        await aclose_all()
