"""Running commands: one-shot (:mod:`.runner`) and the persistent shell whose directory and
exports carry over (:mod:`.persistent_shell`, its session and wire protocol). Whether a
command may run is asked before, of :mod:`ipuaro.security.policy`.
"""
