print("footstep-dataset: not written yet")
