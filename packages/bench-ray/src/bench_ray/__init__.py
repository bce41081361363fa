"""bench-ray: ``bench run SUITE --executor ray`` runs a suite's tasks on a Ray cluster.

Importing this package does not import Ray; the executor imports it when a run starts.
"""
