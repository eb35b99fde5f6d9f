"""Self-play actors on a Ray cluster (``--backend ray``), the learner in this process.

As in RLlib's pattern, each actor holds its own vector env, league and opponents and
plays with the learner's weights, sent with every request; the learner gathers their
transitions, learns, and sends the new weights. Ray (the ``ray`` extra) is imported
only here. ``ray.init`` joins the cluster named by ``RAY_ADDRESS`` when set, else
starts a local one.
"""

from __future__ import annotations

from typing import Any


class RayActors:
    """``len(args)`` instances of ``cls`` as Ray actors; ``call`` runs a method on all of them."""

    def __init__(self, cls, args: list[tuple]):
        try:
            import ray
        except ImportError:
            raise ImportError("--backend ray needs Ray: pip install 'elements-ai[ray]'") from None
        self.ray = ray
        if not ray.is_initialized():
            ray.init(ignore_reinit_error=True, log_to_driver=False, include_dashboard=False)
        remote = ray.remote(num_cpus=1)(cls)
        self.handles = [remote.remote(*a) for a in args]

    def call(self, method: str, *args) -> list[Any]:
        shared = [self.ray.put(a) if isinstance(a, dict) else a for a in args]
        return self.ray.get([getattr(h, method).remote(*shared) for h in self.handles])

    def call_one(self, k: int, method: str, *args) -> Any:
        return self.ray.get(getattr(self.handles[k], method).remote(*args))

    def close(self) -> None:
        """Ends the actors, freeing their CPUs (another run's actors would wait for them)."""
        for handle in self.handles:
            self.ray.kill(handle)
        self.handles = []
