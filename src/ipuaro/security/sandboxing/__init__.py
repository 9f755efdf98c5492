"""What a process ipuaro starts may reach and how long it may live: the sandbox profile
(:mod:`.sandbox`), the Landlock launcher and its seccomp/mount half (:mod:`.landlock`,
:mod:`.confine`), the supervisor that lets nothing outlive a command, and the persistent
shell's reaper (:mod:`.supervisor`, :mod:`.shell_reaper`).

Those last four are standard library only and run by file path under ``python -I -S``, where
ipuaro cannot be imported; they load one another as sibling files, so they stay together here.
"""
