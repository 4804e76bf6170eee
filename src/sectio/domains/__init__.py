"""Domain packs: what a kind of corpus knows beyond its profile (:mod:`sectio.retrieve.domain`).

A profile turns a pack on (``sectio.registry.domains_for``); a new domain is a
new pack here and one line there.

==================  ============================================================
pack                on when
==================  ============================================================
``drug_labels``     the profile's ``[names] brand_table`` is on: brands and
                    ingredients no label holds, combination products
==================  ============================================================
"""
