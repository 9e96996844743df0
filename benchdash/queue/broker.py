"""kombu's Redis transport, with the fix that keeps a worker alive when Redis restarts under a running task.

What happened (kombu 5.7, celery 5.7; docs/RELIABILITY.md has the reproduction): when the broker
connection drops, the worker's consumer first calls Connection.collect(), which closes the channels
and then drops the transport's link to its Connection (transport.client = None), and then
Connection.close(), which closes the default channel again. The first close failed early (Redis was
gone), so the second one runs in full, and a channel that holds unacknowledged messages (a task in
flight with acks_late, or one waiting for its countdown) tries to put them back on the queue: it
builds a Redis client from transport.client, which is now None. The AttributeError that follows is
not a connection error, so the consumer takes it as fatal: the worker logs "Unrecoverable error:
AttributeError(\"'NoneType' object has no attribute 'hostname'\")" (and, stopping, "... no attribute
'connection_errors'"), waits for the running task, and exits. An idle worker has nothing to put back,
so it reconnects.

The fix: a channel whose connection is gone says so with the error a lost connection raises, which the
consumer handles by reconnecting. The messages it could not put back stay in Redis's unacked set
(when Redis kept its data) and come back after the visibility timeout; either way the store, not the
broker, decides what runs, and beat sends whatever has no task on its way.
"""

from typing import Any

from kombu.transport import redis as kombu_redis
from redis.exceptions import ConnectionError as RedisConnectionError


class Channel(kombu_redis.Channel):
    def _connparams(self, asynchronous: bool = False) -> dict[str, Any]:
        if self.connection.client is None:
            raise RedisConnectionError("the broker connection of this channel is closed")
        return super()._connparams(asynchronous=asynchronous)


class Transport(kombu_redis.Transport):
    Channel = Channel
