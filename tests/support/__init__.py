"""What several test packages need to drive real processes: a free port, the stub model server
run as its own process, a real terminal (tmux)."""
