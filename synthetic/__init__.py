"""Synthetic Kakuro images with exact ground truth, for tests, benches and training tools.

Not part of the product (not in the wheel, imported by no product module): ``render`` draws
puzzles in random print styles and style families and photographs them, ``synth`` is the older
renderer whose looks the glyph model was also trained on, ``clue_cells`` draws single clue and
given cells for the OCR tests.
"""
