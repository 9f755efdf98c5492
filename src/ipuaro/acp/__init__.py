"""``ipuaro acp``: ipuaro as an agent for editors that speak the Agent Client Protocol.

A third view over the application core (``ipuaro.core``), beside the TUI and the headless
runner: ``server`` maps protocol requests to workspace operations (``serve`` runs it on
stdio), ``session`` maps a workspace's events and questions to session updates and permission
requests, ``mapping`` holds the pure conversions, ``channel`` keeps stdout for the protocol.
Nothing is imported here: the SDK's schema takes most of a second to load.
"""
