"""Whether the broker lost what it held: a mark beat keeps in the broker's database.

A broker that lost its data (Redis restarted without it, or flushed) lost the tasks it held: beat asks
broker_emptied on every run and then sends again the next trial of every study with none running.
"""

import logging

import redis
from django.conf import settings
from django.utils import timezone

logger = logging.getLogger(__name__)

# Gone means everything the broker held is gone.
BROKER_MARK = "benchdash:broker-kept"


def broker_emptied() -> bool:
    """True when the broker's data is gone since beat last looked (and the first time); marks it again.
    False while the broker cannot be reached: nothing could be sent then anyway."""
    try:
        return bool(broker_client().set(BROKER_MARK, timezone.now().isoformat(), nx=True))
    except redis.RedisError as error:
        logger.warning("could not ask the broker whether it kept its data: %s", error)
        return False


def broker_client() -> redis.Redis:
    """A client of the broker's Redis for the marks kept there, which gives up within seconds when it is away."""
    return redis.Redis.from_url(settings.CELERY_BROKER_URL, socket_timeout=5, socket_connect_timeout=5)
