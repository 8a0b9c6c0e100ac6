"""Attachments: images and PDFs stored once per owner, referenced from message content.

Rule: the only writer of ``Attachment`` rows; ``store`` keeps and expands files, ``views``
serves them (to their owner, and through a share's token while the share lives).
"""
