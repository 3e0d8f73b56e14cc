"""`studio launch --max-batch 4`: concurrent API requests decode together (continuous batching) and each gets
exactly the output it gets alone."""

import json
import time
import urllib.request
from concurrent.futures import ThreadPoolExecutor

from helpers import app_client, free_port

TEXTS = ["나는 커피를 좋아해?", "너는 영화를 봤어?", "그는 책을 샀어?", "우리는 여행을 원해?", "엄마는 음악을 싫어해?",
         "동생은 운동을 했어?", "친구는 사과를 원해?", "너는 커피를 샀어?"]


def test_concurrent_requests_are_batched_and_equal_the_serial_outputs(exported):
    from studio.ui.app import launch

    app = launch(exported[0], exported[0], port=free_port(), backend="tf", max_input_chars=200, max_batch=4,
                 prevent_thread_lock=True, progress=lambda _: None)
    try:
        serial = {}
        client = app_client(app.local_url)
        for text in TEXTS:
            serial[("/chat", text)] = client.predict(text, reply="generate", api_name="/chat")[0]  # the model's
            serial[("/translate", text)] = client.predict(text, strategy="greedy", api_name="/translate")[0]

        def call(job):
            endpoint, text = job
            # the translator's default is beam; the chatbot's, a stored reply (no model, no batch)
            options = {"strategy": "greedy"} if endpoint == "/translate" else {"reply": "generate"}
            return app_client(app.local_url).predict(text, **options, api_name=endpoint)[0]

        jobs = [(endpoint, text) for text in TEXTS for endpoint in ("/chat", "/translate")] * 2
        with ThreadPoolExecutor(8) as pool:
            outputs = list(pool.map(call, jobs))
        assert outputs == [serial[job] for job in jobs]
        schedulers = [g.scheduler for service in app.studio_services for g in service.served._generators.values()]
        # every request went through a scheduler (and each model's warm-up)
        assert sum(s.jobs for s in schedulers) == 3 * len(TEXTS) * 2 + len(schedulers)
        assert sum(s.rows for s in schedulers) > sum(s.steps for s in schedulers)  # and some decoded together
        assert "rows per decode step" in app_client(app.local_url).predict(api_name="/health")

        # a session-less API call gets a session of its own, holding the whole app's configuration in Gradio;
        # those are forgotten once idle (studio.ui.sessions)
        base = f"{app.local_url.rstrip('/')}/gradio_api/call/health"
        for _ in range(5):  # plain HTTP calls without a session: Gradio makes one per call
            request = urllib.request.Request(base, b'{"data": []}', headers={"Content-Type": "application/json"})
            event = json.load(urllib.request.urlopen(request, timeout=30))["event_id"]
            urllib.request.urlopen(f"{base}/{event}", timeout=30).read()
        one_shot = lambda: [h for h in app.state_holder.session_data if len(h) == 32]  # noqa: E731
        assert len(one_shot()) == 5
        deadline = time.monotonic() + 10
        while one_shot() and time.monotonic() < deadline:
            time.sleep(0.2)
        assert not one_shot() and app.state_holder.session_data  # gradio_client's own sessions are kept
    finally:
        app.close()
