print("urna")
