"""Each kind's parts outside engine/, one package a kind: what speaks a transport of its own or opens the
user's files, which engine/ may not (it does no I/O). A kind's registry entry names its package here
(`Family.plugin`), whose `PLUGIN` (service.kind_plugins.KindPlugin) the service loads by that name:
service/ never names a kind. The layer sits above service/ and storage/, below cli/."""
