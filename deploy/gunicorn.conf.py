"""gunicorn's settings for the web server: deploy/Procfile (`make run`) and deploy/systemd/benchdash-web.service.

Arguments on the command line win, e.g. `--bind 0.0.0.0:8000`; so does GUNICORN_CMD_ARGS in the environment.
"""

# Behind the reverse proxy on the same machine (deploy/SCALE-OUT.md, "Serving"); it alone is reached from outside.
bind = "127.0.0.1:8000"
# Threads, because the study page polls its progress every 2 s and CSV downloads stream: a slow reader holds a
# thread, not a whole process.
worker_class = "gthread"
workers = 2
threads = 4
# Past this a request is cut short and its worker restarted; no page or download takes near it.
timeout = 60
graceful_timeout = 30
accesslog = "-"
# No control socket (gunicorn 25+ makes one in $HOME by default): systemd and honcho manage the server, and every
# gunicorn of the account (tests, a second checkout) would otherwise share that one path.
control_socket_disable = True
